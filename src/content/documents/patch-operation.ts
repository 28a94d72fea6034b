import { ValidationError } from '../../errors/app-error.js';

export const operators = ['$set', '$unset', '$inc', '$push', '$addToSet', '$pull', '$pullAll', '$pullAllById', '$move'] as const;
export type Operator = (typeof operators)[number];

/** One step of a PATCH body: an operator applied at a path. */
export interface PatchOperation {
  readonly op: Operator;
  readonly path: string;
  readonly value: unknown;
  /** Plain keys that name no field are ignored, as unknown properties are on insert. */
  readonly lenient: boolean;
}

/** A PATCH body refused: the path and what is wrong there. */
export function fail(path: string, message: string): never {
  throw new ValidationError([{ name: 'invalid', path, message }]);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
