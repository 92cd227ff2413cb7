// custom_profile_fields: the organization's whole list of fields after any change to it.
import { z } from 'zod';
import { defineEvent } from './define.js';

export const customProfileFieldsEvent = defineEvent(
  'custom_profile_fields',
  z.object({ fields: z.array(z.object({ id: z.number().int() }).catchall(z.unknown())) }),
);
