export * from "./activities";
export * from "./queries";
export * from "./queryTypes";
export * from "./responses";
