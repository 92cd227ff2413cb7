// `invites_changed`: the set of invitations someone manages changed; clients refetch GET /invites.
import { z } from 'zod';
import { defineEvent } from './define.js';

export const invitesChangedEvent = defineEvent('invites_changed', z.object({}).strict());
