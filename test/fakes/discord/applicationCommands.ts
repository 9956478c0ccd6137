import { missingAccess } from "./discordApiError.js";
import { readCommands, type CommandInput } from "./commandSchema.js";
import { FormErrors } from "./formErrors.js";
import type { Route } from "./restRouter.js";
import type { World } from "./world.js";

/** A registered command, as Discord answers it. */
export interface RegisteredCommand {
  readonly id: string;
  readonly application_id: string;
  readonly version: string;
  readonly type: number;
  readonly name: string;
  readonly description: string;
  readonly options?: Record<string, unknown>[];
  readonly guild_id?: string;
  readonly default_member_permissions: string | null;
  readonly nsfw: boolean;
  readonly [key: string]: unknown;
}

/** The app's global commands and each guild's, as the bulk overwrites left them. */
export class ApplicationCommands {
  global: RegisteredCommand[] = [];
  readonly byGuild = new Map<string, RegisteredCommand[]>();

  /** The command a user can run by name where they are: the guild's first, then the global one. */
  find(name: string, guildId: string | undefined): RegisteredCommand | undefined {
    const inGuild = guildId ? this.byGuild.get(guildId)?.find((command) => command.name === name && command.type === 1) : undefined;
    return inGuild ?? this.global.find((command) => command.name === name && command.type === 1);
  }
}

/** Bulk Overwrite (and Get) Global and Guild Application Commands. */
export function commandRoutes(world: World, commands: ApplicationCommands): Route[] {
  const checkApp = (id: string | undefined) => {
    if (id !== world.applicationId) throw missingAccess();
  };
  const checkGuild = (id: string) => {
    if (!world.directory.findGuild(id)) throw missingAccess();
  };
  const overwrite = (json: unknown, existing: readonly RegisteredCommand[], guildId?: string) => {
    const errors = new FormErrors();
    const inputs = readCommands(json, errors);
    errors.throwIfAny();
    return inputs.map((input) => registered(world, input, existing, guildId));
  };
  return [
    { name: "getGlobalApplicationCommands", method: "GET", path: "/applications/{application.id}/commands", handle: ({ params }) => (checkApp(params["application.id"]), { status: 200, body: commands.global }) },
    {
      name: "bulkOverwriteGlobalApplicationCommands",
      method: "PUT",
      path: "/applications/{application.id}/commands",
      handle: ({ params, json }) => {
        checkApp(params["application.id"]);
        commands.global = overwrite(json, commands.global);
        return { status: 200, body: commands.global };
      },
    },
    {
      name: "getGuildApplicationCommands",
      method: "GET",
      path: "/applications/{application.id}/guilds/{guild.id}/commands",
      handle: ({ params }) => {
        checkApp(params["application.id"]);
        checkGuild(params["guild.id"]!);
        return { status: 200, body: commands.byGuild.get(params["guild.id"]!) ?? [] };
      },
    },
    {
      name: "bulkOverwriteGuildApplicationCommands",
      method: "PUT",
      path: "/applications/{application.id}/guilds/{guild.id}/commands",
      handle: ({ params, json }) => {
        checkApp(params["application.id"]);
        const guildId = params["guild.id"]!;
        checkGuild(guildId);
        const next = overwrite(json, commands.byGuild.get(guildId) ?? [], guildId);
        commands.byGuild.set(guildId, next);
        return { status: 200, body: next };
      },
    },
  ];
}

/** A command keeps its id when one of the same name and type was registered before, as Discord keeps it. */
function registered(world: World, input: CommandInput, existing: readonly RegisteredCommand[], guildId: string | undefined): RegisteredCommand {
  const before = existing.find((command) => command.name === input.name && command.type === input.type);
  const { raw } = input;
  return {
    id: before?.id ?? world.ids.next(),
    application_id: world.applicationId,
    version: world.ids.next(),
    type: input.type,
    name: input.name,
    description: input.description,
    ...(input.options ? { options: input.options } : {}),
    ...(guildId ? { guild_id: guildId } : {}),
    default_member_permissions: (raw.default_member_permissions as string | null | undefined) ?? null,
    nsfw: raw.nsfw === true,
    ...(guildId ? {} : { dm_permission: raw.dm_permission !== false, contexts: raw.contexts ?? null, integration_types: raw.integration_types ?? [0] }),
    name_localizations: raw.name_localizations ?? null,
    description_localizations: raw.description_localizations ?? null,
  };
}
