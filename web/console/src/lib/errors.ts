// What a form says when the service refuses it, in plain words: the shared rules and the console's
// English wording live in web/kit/errors.ts.
export { describeError, type FieldProblem, type Refusal, refusalOf } from '../../../kit/errors.ts';
