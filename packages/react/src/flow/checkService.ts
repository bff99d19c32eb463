import type { AuthFlow } from "./createAuthFlow";

/**
 * Checks that the page can use the service (`signer.checkConnection()`) and records what is wrong in the
 * flow's store, where the modal shows it instead of a sign-in that cannot work. The cause, with its fix,
 * goes to the console for the developer; the user reads a short message.
 *
 * @example
 * await checkService(flow);
 * flow.store.getState().serviceProblem; // { code: "SERVICE_UNREACHABLE", message: "Nothing answers at …" }
 */
export async function checkService(flow: Pick<AuthFlow, "signer" | "store">): Promise<void> {
  // A signer without the check (a test double, an older core) is taken as working.
  if (typeof flow.signer.checkConnection !== "function") return;
  const result = await flow.signer.checkConnection();
  if (result.ok) {
    if (flow.store.getState().serviceProblem) flow.store.setState({ serviceProblem: undefined });
    return;
  }
  console.error(`[latchkey] ${result.message}`);
  flow.store.setState({ serviceProblem: { code: result.code, message: result.message } });
}
