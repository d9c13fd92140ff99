// Tool groups (`warden:plugin/groups`): a plugin names groups of its tools so that an admin
// serves only the ones agents need (`tools = { groups = [...] }` in the manifest). A tool in
// no group is in group `default`; a group given no tools takes every tool no other group names.
// The host checks the groups again when the plugin loads: these checks only say it sooner.

/** The grant kinds a group's tools may use (`capability-kind` of the WIT). */
export const CAPABILITIES = ['browser', 'capture-http', 'capture-page', 'http', 'terminal', 'sftp', 'rdp', 'files'];

const NAME = /^[a-z0-9_-]{1,32}$/;

// Marks a Group for `plugin.group` without referring to the class, so that a plugin that
// declares no groups bundles without it (the build tells the two apart by that).
export const IS_GROUP = Symbol('warden.group');

/** A named group of a plugin's tools: `new Group('files', 'files on SSH hosts').tools([...]).needs(['sftp'])`. */
export class Group {
  constructor(name, summary) {
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new TypeError(`group name ${JSON.stringify(name)} is invalid: use [a-z0-9_-]{1,32}, such as "files"`);
    }
    if (typeof summary !== 'string' || summary.trim() === '') {
      throw new TypeError(`group \`${name}\`: give a one-line summary of what its tools are for: new Group('${name}', '...')`);
    }
    this.name = name;
    this.summary = summary;
    this._tools = [];
    this._needs = [];
    this[IS_GROUP] = true;
  }

  /** The group's tools, by name. Without any, it takes every tool that no other group names. */
  tools(names) {
    if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) {
      throw new TypeError(`group \`${this.name}\`: .tools() takes a list of tool names, such as ['ls', 'get']`);
    }
    this._tools.push(...names);
    return this;
  }

  /** The grant kinds its tools use: the group is not listed when none of them is granted. */
  needs(kinds) {
    const list = Array.isArray(kinds) ? kinds : [kinds];
    for (const kind of list) {
      if (!CAPABILITIES.includes(kind)) {
        throw new TypeError(`group \`${this.name}\`: unknown capability ${JSON.stringify(kind)} in .needs(); use some of: ${CAPABILITIES.join(', ')}`);
      }
    }
    this._needs.push(...list);
    return this;
  }
}

/** Checks a group as `plugin.group` adds it to `groups` (the ones added before). */
export function checkGroup(group, groups) {
  if (!group || !group[IS_GROUP]) throw new TypeError("plugin.group: give a new Group(name, summary)");
  if (groups.some((g) => g.name === group.name)) throw new TypeError(`group \`${group.name}\` is declared twice`);
  const rest = groups.find((g) => g._tools.length === 0);
  if (group._tools.length === 0 && rest) {
    throw new TypeError(
      `groups \`${rest.name}\` and \`${group.name}\` are both given no tools, so both would take the tools no other group names: list the tools of one of them`,
    );
  }
}

/** The groups as the `groups` export gives them (`{ name, summary, tools, needs }`), the tools
 * of a group given none filled in; throws when a group names a tool the plugin lacks, or two
 * groups name the same tool. */
export function resolveGroups(groups, toolNames) {
  const owner = new Map();
  for (const group of groups) {
    for (const tool of group._tools) {
      if (!toolNames.includes(tool)) {
        throw new TypeError(`group \`${group.name}\` names tool \`${tool}\`, which this plugin does not have (its tools: ${toolNames.join(', ') || 'none'})`);
      }
      const first = owner.get(tool);
      if (first !== undefined && first !== group.name) {
        throw new TypeError(`tool \`${tool}\` is in two groups, \`${first}\` and \`${group.name}\`: a tool is in one group at most`);
      }
      owner.set(tool, group.name);
    }
  }
  const rest = toolNames.filter((name) => !owner.has(name));
  return groups.map((g) => ({
    name: g.name,
    summary: g.summary,
    tools: g._tools.length === 0 ? rest : [...new Set(g._tools)],
    needs: [...new Set(g._needs)],
  }));
}
