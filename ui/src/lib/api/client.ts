// The UI's way to the shell: generated command wrappers plus error normalisation and image URLs.
import { commands, Channel } from './bindings';
import type { ApiError } from './bindings';

export { commands as api, Channel };
export type * from './bindings';

/** Errors cross the boundary as {code, message}; anything else is wrapped the same way. */
export function asApiError(e: unknown): ApiError {
  if (e && typeof e === 'object' && 'code' in e && 'message' in e) {
    return e as ApiError;
  }
  return { code: 'internal', message: String(e) };
}

const base = navigator.userAgent.includes('Windows') ? 'http://assay.localhost/' : 'assay://localhost/';

/** A downscaled preview, made once by the shell and cached in the project. */
export function previewUrl(hash: string, size = 128): string {
  return `${base}preview/${encodeURIComponent(hash)}?size=${size}`;
}

export function imageUrl(hash: string): string {
  return `${base}image/${encodeURIComponent(hash)}`;
}
