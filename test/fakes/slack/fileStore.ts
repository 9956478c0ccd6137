import type { IdMaker } from "./workspace.js";

/** A shared file as `files.info` and a `file_share` message carry it. */
export interface SlackFile {
  readonly id: string;
  readonly created: number;
  readonly timestamp: number;
  readonly name: string;
  readonly title: string;
  readonly mimetype: string;
  readonly filetype: string;
  readonly pretty_type: string;
  readonly user: string;
  readonly user_team: string;
  readonly editable: false;
  readonly size: number;
  readonly mode: "hosted";
  readonly is_external: false;
  readonly external_type: "";
  readonly is_public: boolean;
  readonly public_url_shared: false;
  readonly display_as_bot: false;
  readonly username: "";
  readonly url_private: string;
  readonly url_private_download: string;
  readonly permalink: string;
}

export interface NewFile {
  /** The file's id, when it has one already (an upload's, from `files.getUploadURLExternal`). */
  readonly id?: string;
  readonly name: string;
  readonly mimetype?: string;
  readonly title?: string;
  /** What the file object says its size is; Slack sometimes says 0 (default: the real size). */
  readonly reportedSize?: number;
}

/** Files users shared, served at `url_private` / `url_private_download` on the fake's HTTP port. */
export class FileStore {
  private readonly files = new Map<string, { file: SlackFile; bytes: Buffer }>();
  /** `http://127.0.0.1:<port>`, set once the server listens. */
  baseUrl = "";

  constructor(
    private readonly team: { id: string; domain: string },
    private readonly ids: IdMaker,
  ) {}

  add(bytes: Uint8Array | string, options: NewFile & { user: string; isPublic: boolean; created: number }): SlackFile {
    const id = options.id ?? this.ids.next("F");
    const data = Buffer.from(bytes);
    const extension = options.name.includes(".") ? options.name.split(".").pop()!.toLowerCase() : "binary";
    const path = `/files-pri/${this.team.id}-${id}`;
    const name = encodeURIComponent(options.name);
    const file: SlackFile = {
      id,
      created: options.created,
      timestamp: options.created,
      name: options.name,
      title: options.title ?? options.name,
      mimetype: options.mimetype ?? "application/octet-stream",
      filetype: extension,
      pretty_type: extension.toUpperCase(),
      user: options.user,
      user_team: this.team.id,
      editable: false,
      size: options.reportedSize ?? data.length,
      mode: "hosted",
      is_external: false,
      external_type: "",
      is_public: options.isPublic,
      public_url_shared: false,
      display_as_bot: false,
      username: "",
      url_private: `${this.baseUrl}${path}/${name}`,
      url_private_download: `${this.baseUrl}${path}/download/${name}`,
      permalink: `https://${this.team.domain}.slack.com/files/${options.user}/${id}/${name}`,
    };
    this.files.set(id, { file, bytes: data });
    return file;
  }

  get(id: string): SlackFile | undefined {
    return this.files.get(id)?.file;
  }

  /** A new file id (`F…`), for an upload that has no bytes yet. */
  newId(): string {
    return this.ids.next("F");
  }

  /** A file's exact bytes, or undefined. */
  bytes(id: string): Buffer | undefined {
    return this.files.get(id)?.bytes;
  }

  /** The bytes behind a `/files-pri/<team>-<file>/[download/]<name>` path, or undefined. */
  download(path: string): { file: SlackFile; bytes: Buffer } | undefined {
    const match = /^\/files-pri\/([A-Z0-9]+)-([A-Z0-9]+)\/(?:download\/)?([^/]+)$/.exec(path);
    if (!match || match[1] !== this.team.id) return undefined;
    const stored = this.files.get(match[2]!);
    return stored && encodeURIComponent(stored.file.name) === match[3] ? stored : undefined;
  }
}
