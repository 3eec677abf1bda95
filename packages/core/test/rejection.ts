import type { ServiceRequestError } from '../src/errors/ServiceRequestError.js'

/** The error a promise rejects with; fails the test when it resolves instead. */
export async function rejection(promise: Promise<unknown>): Promise<ServiceRequestError> {
  try {
    await promise
  } catch (error) {
    return error as ServiceRequestError
  }
  throw new Error('expected a rejection')
}
