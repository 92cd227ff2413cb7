// Image files users upload (avatars, custom emoji): the type by the file's leading bytes (never
// by the name or the client's content type), and whether it is animated. Parley stores images as
// uploaded; it does not resize or re-encode them.

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export function sniffImageType(data: Buffer): ImageType | null {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (data.length >= 12 && data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'image/webp';
  }
  return null;
}

/** Animated GIF (more than one image descriptor), animated PNG (acTL chunk) or animated WebP. */
export function isAnimated(data: Buffer, type: ImageType): boolean {
  switch (type) {
    case 'image/png':
      return data.includes(Buffer.from('acTL', 'latin1'));
    case 'image/webp':
      return data.includes(Buffer.from('ANIM', 'latin1'));
    case 'image/gif': {
      // Graphic control extensions precede each frame; two or more mean an animation.
      let count = 0;
      for (let i = data.indexOf(Buffer.from([0x21, 0xf9])); i >= 0; i = data.indexOf(Buffer.from([0x21, 0xf9]), i + 2)) {
        if (++count > 1) return true;
      }
      return false;
    }
    case 'image/jpeg':
      return false;
  }
}

export const IMAGE_EXTENSIONS: Readonly<Record<ImageType, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
