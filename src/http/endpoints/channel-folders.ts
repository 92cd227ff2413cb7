// Channel folders: create (endpoint 6), list, update and archive, reorder. Lengths are the ones
// POST /register reports (max_channel_folder_name_length, max_channel_folder_description_length).
import { z } from 'zod';
import { formatFolder } from '../../actors/realm/channel-folders.js';
import { listFolders } from '../../store/channel-folders.js';
import { userEndpoint } from '../endpoint.js';
import { p } from '../params.js';
import { MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH, MAX_CHANNEL_FOLDER_NAME_LENGTH } from '../register/state.js';

const name = () => p.string({ max: MAX_CHANNEL_FOLDER_NAME_LENGTH, trim: true });
const description = () => p.string({ max: MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH });

export const createChannelFolder = userEndpoint(z.object({ name: name(), description: description() }), async (ctx, params) => {
  const id = await ctx.realm.ask('folder.create', { actorId: ctx.user.id, name: params.name, description: params.description });
  return { channel_folder_id: id };
});

export const getChannelFolders = userEndpoint(z.object({ include_archived: p.bool().default('false') }), async (ctx, params) => {
  const rows = await listFolders(ctx.app.db, ctx.realm.id, params.include_archived);
  return { channel_folders: rows.map(formatFolder) };
});

export const updateChannelFolder = userEndpoint(
  z.object({
    channel_folder_id: p.id(),
    name: name().optional(),
    description: description().optional(),
    is_archived: p.bool().optional(),
  }),
  async (ctx, params) => {
    await ctx.realm.ask('folder.update', {
      actorId: ctx.user.id,
      folderId: params.channel_folder_id,
      name: params.name,
      description: params.description,
      isArchived: params.is_archived,
    });
    return {};
  },
);

export const reorderChannelFolders = userEndpoint(z.object({ order: p.intList() }), async (ctx, params) => {
  await ctx.realm.ask('folder.reorder', { actorId: ctx.user.id, order: params.order });
  return {};
});
