// Worker entry: registers tsx's loader in this thread (workers do not inherit it), then runs the worker.
import { register } from "tsx/esm/api";

register();
await import("./walletWorker.ts");
