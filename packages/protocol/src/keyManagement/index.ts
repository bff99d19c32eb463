export * from "./activities";
export * from "./preview";
export * from "./queries";
export * from "./queryTypes";
export * from "./responses";
