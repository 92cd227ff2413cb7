// The `channel_folders` member of POST /register: every folder, archived ones included, in order.
import { formatFolder } from '../../actors/realm/channel-folders.js';
import { listFolders } from '../../store/channel-folders.js';
import type { StateProvider } from './state.js';

export const channelFolderState: StateProvider = {
  types: ['channel_folder'],
  spectators: false,
  async fetch(ctx) {
    return { channel_folders: (await listFolders(ctx.app.db, ctx.realm.id)).map(formatFolder) };
  },
};
