/** A service error's message is already the service's own text (core's SignerApiError reads the body). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
