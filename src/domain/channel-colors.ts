// A new subscription gets a colour the user does not use yet, so channels stay distinguishable.

export const CHANNEL_COLORS: readonly string[] = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5',
  '#f5ce6e', '#c2726a', '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063',
  '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4', '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
];

/** The first palette colour not in `used`; when all are taken, cycle by how many are used. */
export function pickColor(used: ReadonlySet<string>): string {
  for (const c of CHANNEL_COLORS) if (!used.has(c)) return c;
  return CHANNEL_COLORS[used.size % CHANNEL_COLORS.length]!;
}

const HEX_COLOR = /^#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/;
export const isHexColor = (s: string): boolean => HEX_COLOR.test(s);
