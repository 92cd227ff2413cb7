// The commands of the owners of users' personal message data, one line per module.
import { markRead, updateFlags } from './flags.js';
import { setUserTopicPolicy } from './user-topics.js';

export const userDataCommands = {
  'userTopic.set': setUserTopicPolicy,
  'flags.update': updateFlags,
  'flags.markRead': markRead,
};
