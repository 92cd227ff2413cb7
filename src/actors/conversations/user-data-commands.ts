// The commands of the owners of users' personal message data, one line per module.
import { addAttachment, removeAttachment } from './attachments.js';
import { createDrafts, deleteDraft, editDraft } from './drafts.js';
import { markRead, updateFlags } from './flags.js';
import { createScheduled, deleteScheduled, deliverScheduled, editScheduled } from './scheduled.js';
import { setUserTopicPolicy } from './user-topics.js';

export const userDataCommands = {
  'userTopic.set': setUserTopicPolicy,
  'flags.update': updateFlags,
  'flags.markRead': markRead,
  'attachment.add': addAttachment,
  'attachment.remove': removeAttachment,
  'draft.create': createDrafts,
  'draft.edit': editDraft,
  'draft.delete': deleteDraft,
  'scheduled.create': createScheduled,
  'scheduled.edit': editScheduled,
  'scheduled.delete': deleteScheduled,
  'scheduled.deliver': deliverScheduled,
};
