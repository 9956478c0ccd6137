import { describe, expect, it } from "vitest";
import { API, ApplicationCommandOptionType, ApplicationCommandType, type RESTPostAPIChatInputApplicationCommandsJSONBody } from "@discordjs/core";
import { BOT, refusal, someGuild, useFakeDiscord } from "./fakeDiscordFixture.js";

/** OpenAB's commands (reference §2.9). */
const OPENAB_COMMANDS: RESTPostAPIChatInputApplicationCommandsJSONBody[] = [
  { name: "models", description: "Select the AI model for this session" },
  { name: "agents", description: "Select the agent mode for this session" },
  { name: "cancel", description: "Cancel the current operation" },
  { name: "cancel-all", description: "Cancel current operation and drop all buffered messages" },
  { name: "reset", description: "Reset the conversation session" },
];

describe("fake Discord: slash commands (bulk overwrite)", () => {
  const discord = useFakeDiscord();
  const api = () => new API(discord.rest);

  it("registers OpenAB's commands globally and per guild; a second overwrite keeps the ids of same-named commands", async () => {
    const { guild } = someGuild(discord.fake);
    const first = await api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, OPENAB_COMMANDS);
    expect(first.map((command) => [command.name, command.type, command.application_id])).toEqual(OPENAB_COMMANDS.map((command) => [command.name, 1, BOT.id]));
    const second = await api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, OPENAB_COMMANDS.slice(2));
    expect(second.map((command) => command.id)).toEqual(first.slice(2).map((command) => command.id));
    expect(discord.fake.registeredCommands().map((command) => command.name)).toEqual(["cancel", "cancel-all", "reset"]);
    const inGuild = await api().applicationCommands.bulkOverwriteGuildCommands(BOT.id, guild.id, OPENAB_COMMANDS);
    expect(inGuild.every((command) => command.guild_id === guild.id)).toBe(true);
    expect(await api().applicationCommands.getGuildCommands(BOT.id, guild.id)).toHaveLength(5);
  });

  it("refuses names Discord refuses: upper case, spaces, 33 characters; keeps what its regex allows", async () => {
    for (const name of ["Cancel", "cancel all", "c".repeat(33), "cancel!"]) {
      const error = await refusal(api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, [{ name, description: "d" }]));
      expect(error.code).toBe(50035);
      expect(JSON.stringify(error.rawError)).toMatch(/APPLICATION_COMMAND_INVALID_NAME|BASE_TYPE_BAD_LENGTH/);
    }
    const error = await refusal(api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, [{ name: "ok", description: "d" }, { name: "Bad", description: "d" }]));
    expect(error.rawError).toEqual({ code: 50035, message: "Invalid Form Body", errors: { "1": { name: { _errors: [{ code: "APPLICATION_COMMAND_INVALID_NAME", message: "Command name is invalid" }] } } } });
    const fine = await api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, [
      { name: "über-cancel", description: "d" },
      { name: "キャンセル", description: "d" },
      { name: "Cancel This", type: ApplicationCommandType.Message },
    ]);
    expect(fine).toHaveLength(3);
  });

  it("refuses a description outside 1–100, duplicate names, options after the 25th, required after optional", async () => {
    const missing = await refusal(api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, [{ name: "x" } as never]));
    expect(missing.rawError).toMatchObject({ errors: { "0": { description: { _errors: [{ code: "BASE_TYPE_REQUIRED" }] } } } });
    const long = await refusal(api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, [{ name: "x", description: "d".repeat(101) }]));
    expect(long.rawError).toMatchObject({ errors: { "0": { description: { _errors: [{ code: "BASE_TYPE_BAD_LENGTH", message: "Must be between 1 and 100 in length." }] } } } });
    const twice = await refusal(api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, [{ name: "x", description: "d" }, { name: "x", description: "e" }]));
    expect(twice.rawError).toMatchObject({ errors: { _errors: [{ code: "APPLICATION_COMMANDS_DUPLICATE_NAME" }] } });
    const option = (name: string, required: boolean) => ({ type: ApplicationCommandOptionType.String as const, name, description: "o", required });
    const many = await refusal(api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, [{ name: "x", description: "d", options: Array.from({ length: 26 }, (_, i) => option(`o${i}`, false)) }]));
    expect(many.rawError).toMatchObject({ errors: { "0": { options: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 25 or fewer in length." }] } } } });
    const order = await refusal(api().applicationCommands.bulkOverwriteGlobalCommands(BOT.id, [{ name: "x", description: "d", options: [option("later", false), option("first", true)] }]));
    expect(order.rawError).toMatchObject({ errors: { "0": { options: { _errors: [{ code: "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID" }] } } } });
  });

  it("refuses another application's commands with 50001", async () => {
    expect(await refusal(api().applicationCommands.bulkOverwriteGlobalCommands("1000000000000000001", OPENAB_COMMANDS))).toMatchObject({ status: 403, code: 50001 });
  });
});
