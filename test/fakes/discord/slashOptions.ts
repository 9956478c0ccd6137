import { channelObject, memberObject, roleObject, userObject } from "./apiObjects.js";
import type { RegisteredCommand } from "./applicationCommands.js";
import { OPTION_TYPE } from "./commandSchema.js";
import type { World } from "./world.js";

/**
 * A slash command's interaction `data` from option values by name, as Discord's client builds it from what a
 * user typed: options in the command's order, each with its type; users, members, channels and roles the
 * options name in `resolved`. A value the command could not take (an unknown option, a missing required one,
 * the wrong type, a value outside its choices) is a test's mistake: it throws, since no client could send it.
 */
export function slashData(world: World, command: RegisteredCommand, values: Readonly<Record<string, unknown>>, guildId: string | undefined): Record<string, unknown> {
  const resolved: Record<string, Record<string, unknown>> = {};
  const options = build(world, command.name, command.options ?? [], values, resolved, guildId);
  return {
    id: command.id,
    name: command.name,
    type: 1,
    ...(options.length > 0 ? { options } : {}),
    ...(Object.keys(resolved).length > 0 ? { resolved } : {}),
    ...(command.guild_id ? { guild_id: command.guild_id } : {}),
  };
}

function build(world: World, where: string, definitions: readonly Record<string, unknown>[], values: Readonly<Record<string, unknown>>, resolved: Record<string, Record<string, unknown>>, guildId: string | undefined): Record<string, unknown>[] {
  for (const name of Object.keys(values)) {
    if (!definitions.some((definition) => definition.name === name)) throw new Error(`fake Discord: /${where} has no option ${name}`);
  }
  return definitions.flatMap((definition): Record<string, unknown>[] => {
    const name = definition.name as string;
    const type = definition.type as number;
    if (!(name in values)) {
      if (definition.required === true) throw new Error(`fake Discord: /${where} needs option ${name}`);
      return [];
    }
    const value = values[name];
    if (type === OPTION_TYPE.SUB_COMMAND || type === OPTION_TYPE.SUB_COMMAND_GROUP) {
      const nested = (definition.options ?? []) as Record<string, unknown>[];
      return [{ name, type, options: build(world, `${where} ${name}`, nested, (value ?? {}) as Record<string, unknown>, resolved, guildId) }];
    }
    checkValue(where, definition, value);
    resolve(world, type, value as string, resolved, guildId);
    return [{ name, type, value }];
  });
}

function checkValue(where: string, definition: Record<string, unknown>, value: unknown): void {
  const type = definition.type as number;
  const ok =
    type === OPTION_TYPE.STRING ? typeof value === "string"
    : type === OPTION_TYPE.INTEGER ? Number.isSafeInteger(value)
    : type === OPTION_TYPE.NUMBER ? typeof value === "number"
    : type === OPTION_TYPE.BOOLEAN ? typeof value === "boolean"
    : typeof value === "string";
  const choices = definition.choices as { value: unknown }[] | undefined;
  if (!ok || (choices && !choices.some((choice) => choice.value === value))) {
    throw new Error(`fake Discord: /${where} option ${String(definition.name)} cannot take ${JSON.stringify(value)}`);
  }
}

function resolve(world: World, type: number, id: string, resolved: Record<string, Record<string, unknown>>, guildId: string | undefined): void {
  const guild = guildId ? world.directory.findGuild(guildId) : undefined;
  const add = (kind: string, value: unknown): void => {
    (resolved[kind] ??= {})[id] = value;
  };
  if (type === OPTION_TYPE.USER || type === OPTION_TYPE.MENTIONABLE) {
    const user = world.directory.user(id);
    if (user) {
      add("users", userObject(user));
      const member = guild?.members.get(id);
      if (member) add("members", { ...memberObject(member, world.directory, false), permissions: guild!.roles.get(guild!.id)?.permissions ?? "0" });
      return;
    }
  }
  if (type === OPTION_TYPE.ROLE || type === OPTION_TYPE.MENTIONABLE) {
    const role = guild?.roles.get(id);
    if (role) {
      add("roles", roleObject(role));
      return;
    }
  }
  if (type === OPTION_TYPE.CHANNEL) {
    const channel = world.channels.find(id);
    if (channel) {
      add("channels", { ...channelObject(channel, world), permissions: "0" });
      return;
    }
  }
  if (type === OPTION_TYPE.USER || type === OPTION_TYPE.ROLE || type === OPTION_TYPE.CHANNEL || type === OPTION_TYPE.MENTIONABLE) {
    throw new Error(`fake Discord: option value ${id} names nothing the fake knows`);
  }
}
