import { invalidFormBody, type ErrorTree, type FieldError } from "./discordApiError.js";

/**
 * Field errors collected under their paths and thrown together as one 50035 Invalid Form Body, nested the
 * way Discord nests them (docs: Reference › Error Messages): `{"content": {"_errors": [...]}}`,
 * `{"0": {"name": {"_errors": [...]}}}` for an array body, `{"_errors": [...]}` for the request itself.
 */
export class FormErrors {
  private readonly tree: ErrorTree = {};
  private count = 0;

  add(path: readonly (string | number)[], error: FieldError): void {
    let node = this.tree;
    for (const key of path) {
      const next = (node[String(key)] ??= {}) as ErrorTree;
      node = next;
    }
    (node._errors ??= []).push(error);
    this.count++;
  }

  get empty(): boolean {
    return this.count === 0;
  }

  throwIfAny(): void {
    if (this.count > 0) throw invalidFormBody(this.tree);
  }
}

/** Lengths are counted in code points, as Discord counts message and name lengths. */
export const lengthOf = (text: string): number => [...text].length;

// Codes and wording of Discord's validation errors. The docs show the shape and a few of them
// (BASE_TYPE_REQUIRED, BASE_TYPE_CHOICES); the others are as Discord answers them.
export const required: FieldError = { code: "BASE_TYPE_REQUIRED", message: "This field is required" };
export const maxLength = (max: number): FieldError => ({ code: "BASE_TYPE_MAX_LENGTH", message: `Must be ${max} or fewer in length.` });
export const badLength = (min: number, max: number): FieldError => ({ code: "BASE_TYPE_BAD_LENGTH", message: `Must be between ${min} and ${max} in length.` });
export const choices = (values: readonly (string | number)[]): FieldError => ({
  code: "BASE_TYPE_CHOICES",
  message: `Value must be one of (${values.map((value) => (typeof value === "string" ? `'${value}'` : String(value))).join(", ")}).`,
});
export const notString = (value: unknown): FieldError => ({ code: "BASE_TYPE_STRING", message: `Could not interpret "${shown(value)}" as string.` });
export const notInteger = (value: unknown): FieldError => ({ code: "NUMBER_TYPE_COERCE", message: `Value "${shown(value)}" is not int.` });
export const notSnowflake = (value: unknown): FieldError => ({ code: "NUMBER_TYPE_COERCE", message: `Value "${shown(value)}" is not snowflake.` });
export const notBoolean: FieldError = { code: "BASE_TYPE_BOOLEAN", message: "Must be either true or false." };
export const notObject: FieldError = { code: "MODEL_TYPE_CONVERT", message: "Only dictionaries may be used in a ModelType" };
export const notList: FieldError = { code: "LIST_TYPE_CONVERT", message: "Only iterables may be used in a ListType" };
export const intAtMost = (max: number): FieldError => ({ code: "NUMBER_TYPE_MAX", message: `int value should be less than or equal to ${max}.` });
export const intAtLeast = (min: number): FieldError => ({ code: "NUMBER_TYPE_MIN", message: `int value should be greater than or equal to ${min}.` });

function shown(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
