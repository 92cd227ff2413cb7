// has_videocall_token: whether the user may now create video calls (sent to that user).
import { z } from 'zod';
import { defineEvent } from './define.js';

export const hasVideocallTokenEvent = defineEvent('has_videocall_token', z.object({ value: z.boolean() }));
