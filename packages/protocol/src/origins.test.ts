import { describe, expect, it } from "vitest";
import { isLoopbackAnyPort, isOriginAllowed, originMatches, urlAllowedBy } from "./origins";

describe("allowed origins", () => {
  it("matches an exact origin only exactly", () => {
    expect(originMatches("https://app.example.com", "https://app.example.com")).toBe(true);
    expect(originMatches("https://app.example.com", "https://app.example.com:444")).toBe(false);
    expect(originMatches("https://app.example.com", "http://app.example.com")).toBe(false);
    expect(originMatches("http://localhost:5173", "http://localhost:5174")).toBe(false);
  });

  it("matches a loopback any-port entry on that host, any port, http only", () => {
    expect(originMatches("http://localhost:*", "http://localhost:3000")).toBe(true);
    expect(originMatches("http://localhost:*", "http://localhost")).toBe(true);
    expect(originMatches("http://127.0.0.1:*", "http://127.0.0.1:8080")).toBe(true);
    expect(originMatches("http://[::1]:*", "http://[::1]:8080")).toBe(true);
    expect(originMatches("http://localhost:*", "http://127.0.0.1:3000")).toBe(false);
    expect(originMatches("http://localhost:*", "https://localhost:3000")).toBe(false);
    expect(originMatches("http://localhost:*", "http://localhost.evil.com:3000")).toBe(false);
    expect(originMatches("http://localhost:*", "http://evil.com:3000")).toBe(false);
    expect(originMatches("http://localhost:*", "http://localhost:3000/path")).toBe(false);
  });

  it("has no wildcard for public hosts", () => {
    expect(isLoopbackAnyPort("http://localhost:*")).toBe(true);
    expect(isLoopbackAnyPort("https://*.example.com")).toBe(false);
    expect(isLoopbackAnyPort("http://example.com:*")).toBe(false);
    expect(originMatches("http://example.com:*", "http://example.com:80")).toBe(false);
  });

  it("checks a list", () => {
    expect(isOriginAllowed(["https://a.example", "http://localhost:*"], "http://localhost:1234")).toBe(true);
    expect(isOriginAllowed(new Set(["https://a.example"]), "https://b.example")).toBe(false);
  });

  it("allows return URLs by origin (pattern or exact) and path", () => {
    expect(urlAllowedBy("http://localhost:*/", new URL("http://localhost:3000/"))).toBe(true);
    expect(urlAllowedBy("http://localhost:*", new URL("http://localhost:3000/"))).toBe(true);
    expect(urlAllowedBy("http://localhost:*/done", new URL("http://localhost:3000/done?x=1"))).toBe(true);
    expect(urlAllowedBy("http://localhost:*/done", new URL("http://localhost:3000/other"))).toBe(false);
    expect(urlAllowedBy("https://app.example.com/cb", new URL("https://app.example.com/cb"))).toBe(true);
    expect(urlAllowedBy("https://app.example.com/cb", new URL("https://evil.example.com/cb"))).toBe(false);
  });
});
