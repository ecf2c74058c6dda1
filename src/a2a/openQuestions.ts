// The task backend's open questions: the one implementation in runtime/openQuestions.ts, shared with RunDesk.
export { OpenQuestions } from '../runtime/openQuestions.js';
