export * from "./constants";
export * from "./crypto";
export * from "./errors";
export * from "./schemas";
