// The benchmarks' gateway, in a process of its own — as OpenAB's gateway is — so that building,
// writing, reading and acking frames does not compete with the broker under test for its event
// loop: a DevGateway on loopback that broadcasts event frames when told (one, or a batch of
// pre-built ones as fast as its socket takes them), acks every reply at once and reports each
// reply's arrival time (the bare ack round trip's frames it only acks) — or runs a steady feed
// (bench/lib/steadyFeed.ts) and keeps its replies to itself. Started by bench/lib/remoteGateway.ts
// with an IPC channel; not run by hand.
import { DevGateway } from "../src/devgateway/devGateway.js";
import { ACK_PROBE_CHANNEL, type GatewayCommand, type GatewayReport } from "./lib/gatewayProtocol.js";
import { gatewayFrame } from "./lib/gatewayFrames.js";
import { SteadyFeed } from "./lib/steadyFeed.js";

const report = (message: GatewayReport) => process.send?.(message);

const gateway = await DevGateway.start();
let steady: SteadyFeed | undefined;
gateway.connections.subscribe((count) => report({ kind: "connections", count }));
gateway.received.subscribe((received) => {
  // The bare ack round trip's frames are acked as any send, and not reported: no harness work in the trip.
  if (received.kind !== "reply" || received.frame.channel.id === ACK_PROBE_CHANNEL) return;
  if (steady !== undefined) return steady.reply(received.frame.content.text);
  const atNs = process.hrtime.bigint();
  report({ kind: "reply", channel: received.frame.channel.id, text: received.frame.content.text, atNs: String(atNs) });
});
process.on("message", (command: GatewayCommand) => {
  switch (command.kind) {
    case "stop":
      void gateway.close().then(() => process.exit(0));
      return;
    case "broadcast":
      gateway.broadcast(command.frame);
      return;
    case "steady": {
      const feed = new SteadyFeed(gateway, command, report, () => {
        if (steady === feed) steady = undefined;
      });
      steady = feed;
      feed.start();
      return;
    }
    case "feed": {
      const frames = Array.from({ length: command.count }, (_, i) => gatewayFrame(command.from + i, command.mix));
      const firstSentNs = process.hrtime.bigint();
      for (const frame of frames) gateway.broadcast(frame);
      const lastSentNs = process.hrtime.bigint();
      report({ kind: "fed", firstSentNs: String(firstSentNs), lastSentNs: String(lastSentNs) });
      return;
    }
  }
});
process.on("disconnect", () => process.exit(0));
report({ kind: "ready", url: gateway.url, token: gateway.token });
