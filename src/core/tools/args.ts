import { ToolInputError } from './types';

export function stringArg(args: Record<string, unknown>, name: string, required: true): string;
export function stringArg(args: Record<string, unknown>, name: string, required?: false): string | undefined;
export function stringArg(args: Record<string, unknown>, name: string, required = false): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) {
    if (required) throw new ToolInputError(`"${name}" is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw new ToolInputError(`"${name}" must be a string`);
  return value;
}

export function intArg(args: Record<string, unknown>, name: string, limits: { min: number; max: number }): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new ToolInputError(`"${name}" must be a whole number`);
  if (value < limits.min || value > limits.max) throw new ToolInputError(`"${name}" must be between ${limits.min} and ${limits.max}`);
  return value;
}

export function boolArg(args: Record<string, unknown>, name: string): boolean {
  const value = args[name];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new ToolInputError(`"${name}" must be true or false`);
  return value;
}

/** Parses a model's raw JSON arguments into an object, or explains why it cannot. */
export function parseToolArguments(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw.trim() === '' ? '{}' : raw);
  } catch (error) {
    throw new ToolInputError(`the arguments are not valid JSON (${(error as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ToolInputError('the arguments must be a JSON object');
  return value as Record<string, unknown>;
}
