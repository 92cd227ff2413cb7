// The commands of the owners of users' personal message data, one line per module.
export const userDataCommands = {};
