export * from "./activities";
export * from "./queries";
