export type { Question, QuestionOption, QuestionOutcome } from "./question.js";
export { choiceData, parseChoiceData } from "./choiceData.js";
export { parseAnswer } from "./parseAnswer.js";
export { outcomeLine, questionBody, questionHint, toggleLabel, type QuestionClosing, type QuestionPlace, type QuestionStyle } from "./questionText.js";
export { OPTION_LABEL_CHARS, permissionQuestion, type PermissionRequest } from "./permissionQuestion.js";
export { mayAnswer, type Answerers } from "./mayAnswer.js";
export { labelText } from "./labelText.js";
