// Realm commands for channel folders (administrators only): create, update (name, description,
// archive state) and reorder. Descriptions render like channel descriptions. Folders are not
// cached: the actor reads them inside its own serialised commands; reads elsewhere use the store.
import { errors } from '../../domain/errors.js';
import { channelFolderEvent } from '../../domain/events/channel-folder.js';
import { isAdmin } from '../../domain/roles.js';
import * as store from '../../store/channel-folders.js';
import type { RealmContext } from './actor.js';
import { renderDescription } from './channels.js';
import { renderData } from './markdown-context.js';
import type { RealmState } from './state.js';

/** The API's channel folder object. */
export function formatFolder(f: store.FolderRow): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    order: f.sort_order,
    date_created: Math.floor(f.date_created / 1000),
    creator_id: f.creator_id,
    description: f.description,
    rendered_description: f.rendered_description,
    is_archived: f.is_archived,
  };
}

function requireAdmin(state: RealmState, actorId: number): void {
  const u = state.user(actorId);
  if (!u || !isAdmin(u.role)) throw errors.unauthorizedPrincipal();
}

function checkFolderName(name: string): void {
  if (name.length === 0) throw errors.badRequest("Channel folder name can't be empty.");
}

async function createFolder(
  ctx: RealmContext,
  input: { readonly actorId: number; readonly name: string; readonly description: string },
): Promise<number> {
  const { state, services } = ctx;
  requireAdmin(state, input.actorId);
  checkFolderName(input.name);
  if (await store.folderNameTaken(services.db, state.id, input.name)) throw errors.badRequest('Channel folder name already in use');
  const rendered = renderDescription(state, renderData(state), input.description);
  return ctx.write(async (tx, emit) => {
    const row = await store.insertFolder(tx, {
      realmId: state.id,
      name: input.name,
      description: input.description,
      renderedDescription: rendered,
      creatorId: input.actorId,
      nowMs: services.clock.now(),
    });
    emit(channelFolderEvent.build({ op: 'add', channel_folder: formatFolder(row) as never }, { userIds: null }));
    return row.id;
  });
}

export interface UpdateFolderInput {
  readonly actorId: number;
  readonly folderId: number;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly isArchived?: boolean | undefined;
}

async function updateFolder(ctx: RealmContext, input: UpdateFolderInput): Promise<void> {
  const { state, services } = ctx;
  requireAdmin(state, input.actorId);
  const folder = await store.findFolder(services.db, state.id, input.folderId);
  if (!folder) throw errors.badRequest('Invalid channel folder ID');
  if (input.name === undefined && input.description === undefined && input.isArchived === undefined) throw errors.noNewData();
  const name = input.name !== undefined && input.name !== folder.name ? input.name : undefined;
  if (name !== undefined) {
    checkFolderName(name);
    if (await store.folderNameTaken(services.db, state.id, name, folder.id)) throw errors.badRequest('Channel folder name already in use');
  }
  const description = input.description !== undefined && input.description !== folder.description ? input.description : undefined;
  const archive = input.isArchived !== undefined && input.isArchived !== folder.is_archived ? input.isArchived : undefined;
  if (archive === true && (await store.folderHasChannels(services.db, folder.id))) {
    throw errors.badRequest('You need to remove all the channels from this folder to archive it.');
  }
  const rendered = description === undefined ? undefined : renderDescription(state, renderData(state), description);
  if (name === undefined && description === undefined && archive === undefined) return;
  await ctx.write(async (tx, emit) => {
    await store.updateFolder(tx, folder.id, { name, description, renderedDescription: rendered, isArchived: archive });
    const update = (data: Record<string, unknown>) =>
      emit(channelFolderEvent.build({ op: 'update', channel_folder_id: folder.id, data }, { userIds: null }));
    if (name !== undefined) update({ name });
    if (description !== undefined) update({ description, rendered_description: rendered });
    if (archive !== undefined) update({ is_archived: archive });
  });
}

async function reorderFolders(ctx: RealmContext, input: { readonly actorId: number; readonly order: readonly number[] }): Promise<void> {
  const { state, services } = ctx;
  requireAdmin(state, input.actorId);
  const all = (await store.listFolders(services.db, state.id)).map((f) => f.id);
  const given = new Set(input.order);
  if (given.size !== input.order.length || given.size !== all.length || !all.every((id) => given.has(id))) {
    throw errors.badRequest('Invalid order mapping');
  }
  await ctx.write(async (tx, emit) => {
    await store.setFolderOrder(tx, state.id, input.order);
    emit(channelFolderEvent.build({ op: 'reorder', order: [...input.order] }, { userIds: null }));
  });
}

export const channelFolderCommands = {
  'folder.create': createFolder,
  'folder.update': updateFolder,
  'folder.reorder': reorderFolders,
};
