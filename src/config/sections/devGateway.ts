import { isIPv6 } from "node:net";
import * as z from "zod";
import { expecting } from "../problems/expected.js";
import { hostPort, notAllowed } from "../fields.js";

const TOKEN = /^[A-Za-z0-9._~-]+$/;
const tokenExpected = `a non-empty token of letters, digits and "." "_" "~" "-" (it travels in ?token= unencoded)`;

/** `dev_gateway.token`; a refusal never echoes the value (it is a secret). */
export const devGatewayToken = expecting(
  z.string().refine((value) => TOKEN.test(value), { message: `value hidden; expected ${tokenExpected}` }),
  tokenExpected,
);

const HOST_NAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
const hostExpected = `host names without a port, e.g. "devbox.local", "192.168.1.5" or "[fe80::1]"`;

function isHostName(value: string): boolean {
  if (value.startsWith("[") && value.endsWith("]")) return isIPv6(value.slice(1, -1));
  return HOST_NAME.test(value);
}

/** `dev_gateway.allowed_hosts`: names a request's `Host` may carry besides loopback (DNS-rebinding defence). */
const allowedHosts = expecting(
  z.array(
    z.string().superRefine((value, ctx) => {
      if (!isHostName(value)) ctx.addIssue({ code: "custom", message: notAllowed(value, hostExpected), input: value });
    }),
  ),
  `an array of ${hostExpected}`,
);

/** `[dev_gateway]`: a local gateway for trying the broker without a chat platform. */
export const devGatewaySection = z
  .strictObject({
    listen: hostPort().default("127.0.0.1:8765"),
    // Unset: `dev-gateway` generates one at start and prints it; the check cannot be switched off.
    token: devGatewayToken.optional(),
    // Unset: only 127.0.0.1, localhost, [::1] and the listen host.
    allowed_hosts: allowedHosts.optional(),
  })
  .prefault({});
