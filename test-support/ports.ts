import { createServer } from "node:net";

/**
 * A loopback port nothing listens on now (taken, then released): for a free port, or a closed one. In a
 * module of its own, so that the chain stack gets it without loading playwright-core.
 */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
