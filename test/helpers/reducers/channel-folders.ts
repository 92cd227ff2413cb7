// Reducer for `channel_folder` events, applied to `channel_folders` as a client keeps it.
import type { Reducer } from './types.js';

type Folder = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const channelFolder: Reducer = (state, e) => {
  const folders: Folder[] | undefined = state.channel_folders;
  if (!folders) return;
  switch (e.op) {
    case 'add':
      folders.push(e.channel_folder);
      return;
    case 'update': {
      const f = folders.find((x) => x.id === e.channel_folder_id);
      if (f) Object.assign(f, e.data);
      return;
    }
    case 'reorder':
      (e.order as number[]).forEach((id, i) => {
        const f = folders.find((x) => x.id === id);
        if (f) f.order = i;
      });
      folders.sort((a, b) => a.order - b.order);
      return;
    default:
      throw new Error(`unknown channel_folder op ${e.op}`);
  }
};

export const channelFolderReducers: Record<string, Reducer> = { channel_folder: channelFolder };
