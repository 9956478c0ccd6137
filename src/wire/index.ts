// The edge↔worker wire: what both halves must agree on when they run in different processes.
export { subjects, type Subjects } from "./subjects.js";
export { fromSubjectToken, maxTokenLength, subjectToken } from "./subjectToken.js";
export { SEND_ID_HEADER, SKIPPED_MESSAGE_ID, sendReplySchema, type SendReply } from "./sendReply.js";
export { SendError, type SendErrorOptions } from "./sendError.js";
