// The channel members of POST /register: `subscriptions`, `unsubscribed`, `never_subscribed`
// (subscription), `streams` (stream) and `realm_default_streams` (default_streams).
import { channelObject } from '../../actors/realm/channel-view.js';
import { gatherSubscriptions, visibleChannels } from '../views/subscriptions.js';
import type { StateProvider } from './state.js';

export const subscriptionState: StateProvider = {
  types: ['subscription'],
  spectators: false,
  async fetch({ app, realm, user, options }) {
    const lists = await gatherSubscriptions(realm, user!, {
      includeSubscribers: options.includeSubscribers,
      includeArchived: options.capabilities.archived_channels,
      notificationSettingsNull: options.capabilities.notification_settings_null,
      nowMs: app.clock.now(),
    });
    return { ...lists };
  },
};

export const streamState: StateProvider = {
  types: ['stream'],
  spectators: true,
  fetch({ realm, user, options }) {
    if (user) return { streams: visibleChannels(realm, user, options.capabilities.archived_channels) };
    // Spectators see the web-public channels.
    const state = realm.state;
    return { streams: [...state.channels.all()].filter((c) => c.is_web_public && !c.is_archived).map((c) => channelObject(state, c)) };
  },
};

export const defaultStreamState: StateProvider = {
  types: ['default_streams'],
  spectators: false,
  fetch({ realm }) {
    return { realm_default_streams: [...realm.state.channels.defaultChannelIds].sort((a, b) => a - b) };
  },
};
