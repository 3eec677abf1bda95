/** A client error the simulator answers with HTTP 400 and a JSON `{ error }` body. */
export class BadRequest extends Error {}

export function requireInteger(value: unknown, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new BadRequest(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`)
  }
  return value
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
