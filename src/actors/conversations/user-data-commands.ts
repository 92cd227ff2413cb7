// The commands of the owners of users' personal message data, one line per module.
import { setUserTopicPolicy } from './user-topics.js';

export const userDataCommands = {
  'userTopic.set': setUserTopicPolicy,
};
