export { QuestionDesk, type IgnoredAnswer, type QuestionDeskOptions } from "./questionDesk.js";
export { withQuestions } from "./withQuestions.js";
