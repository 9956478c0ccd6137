import { describe, expect, it } from "vitest";
import { parseRequestHead } from "../../src/metrics/requestHead.js";
import { expectLinear } from "../helpers/linearTime.js";

describe("parseRequestHead", () => {
  it("reads Prometheus' and a kubelet's requests", () => {
    expect(parseRequestHead("GET /metrics HTTP/1.1\r\nHost: 10.0.0.7:9464\r\nUser-Agent: Prometheus/2.45.0\r\nAccept: text/plain;version=0.0.4\r\nAccept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10")).toEqual({
      method: "GET",
      path: "/metrics",
      keepAlive: true,
      hasBody: false,
    });
    expect(parseRequestHead("GET /healthz HTTP/1.1\r\nHost: 10.0.0.7:9464\r\nUser-Agent: kube-probe/1.29\r\nAccept: */*\r\nConnection: close")).toEqual({ method: "GET", path: "/healthz", keepAlive: false, hasBody: false });
  });

  it("keep-alive: HTTP/1.1 unless `close`, HTTP/1.0 only with `keep-alive`, across repeated and listed Connection headers", () => {
    expect(parseRequestHead("HEAD /readyz HTTP/1.0")).toMatchObject({ method: "HEAD", keepAlive: false });
    expect(parseRequestHead("GET / HTTP/1.0\r\nconnection: Keep-Alive")).toMatchObject({ keepAlive: true });
    expect(parseRequestHead("GET / HTTP/1.1\r\nConnection: upgrade\r\nConnection: te, CLOSE")).toMatchObject({ keepAlive: false });
  });

  it("drops the query; a body announced by content-length or transfer-encoding is noted", () => {
    expect(parseRequestHead("GET /readyz?verbose=1 HTTP/1.1")).toMatchObject({ path: "/readyz" });
    expect(parseRequestHead("POST /metrics HTTP/1.1\r\nContent-Length: 12")).toMatchObject({ method: "POST", hasBody: true });
    expect(parseRequestHead("GET /metrics HTTP/1.1\r\nContent-Length: 0")).toMatchObject({ hasBody: false });
    expect(parseRequestHead("GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked")).toMatchObject({ hasBody: true });
  });

  it("ignores empty lines before the request line", () => {
    expect(parseRequestHead("\r\n\r\nGET /healthz HTTP/1.1")).toMatchObject({ path: "/healthz" });
  });

  it("refuses what is not an HTTP/1.x request line or a header line", () => {
    for (const bad of ["GET /healthz", "GET /healthz HTTP/2.0", "GET  /healthz HTTP/1.1", "G@T / HTTP/1.1", "", "\u0000"]) expect(parseRequestHead(bad)).toEqual({ bad: "request_line" });
    for (const bad of ["GET / HTTP/1.1\r\n folded", "GET / HTTP/1.1\r\nno colon", "GET / HTTP/1.1\r\nbad name: x", "GET / HTTP/1.1\r\nX: a\nb"]) expect(parseRequestHead(bad)).toEqual({ bad: "header_line" });
  });

  it("is linear in the head: a long run of blanks in one value", () => {
    const blanks = (count: number) => `GET / HTTP/1.1\r\nX: a${" \t".repeat(count)}b\r\nConnection: close`;
    expect(parseRequestHead(blanks(2_000_000))).toMatchObject({ keepAlive: false });
    expectLinear(blanks, parseRequestHead, 2_000_000);
  });
});
