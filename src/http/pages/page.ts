// The frame of Parley's few HTML pages (sign-up, login): self-contained, no scripts, strict headers.
import { escapeHtml } from 'markdown-it/lib/common/utils.mjs';
import { RawResponse } from '../endpoint.js';

const HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

const STYLE = `body{font-family:system-ui,sans-serif;background:#f5f5f7;margin:0}main{max-width:26rem;margin:4rem auto;background:#fff;
padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002}label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;
box-sizing:border-box}button{margin-top:1.5rem;padding:.6rem 1.2rem}.error{color:#b00020}`;

/** A complete page: `body` is HTML the caller escaped. `headers` add to (or replace) the common ones. */
export function page(status: number, title: string, body: string, headers: Record<string, string> = {}): RawResponse {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>
`;
  return new RawResponse(status, { ...HEADERS, ...headers }, html);
}
