import { request } from '../api/client';

/** A release as `/api/v1/@cms/release` answers it. */
export interface Release {
  _id: string;
  title: string;
  publishAt: string | null;
  state: 'open' | 'published' | 'failed' | 'reverted';
  createdAt: string;
  publishedAt: string | null;
  failure: string | null;
}
export interface ReleaseDocument { _id: string; type: string; title: string | null; state: 'modified' | 'published' | 'missing' }
export interface PrecheckFailure { _id: string; type: string; status: string; name: string; message: string }

const base = '/@cms/release';
export const listReleases = () => request<{ results: Release[]; next: string | null }>(base, { query: { limit: 100 } });
export const getRelease = (id: string) => request<Release & { documents: ReleaseDocument[] }>(`${base}/${encodeURIComponent(id)}`);
export const createRelease = (body: { title: string; publishAt?: string | null }) => request<Release>(base, { method: 'POST', body });
export const editRelease = (id: string, body: { title?: string; publishAt?: string | null }) => request<Release>(`${base}/${encodeURIComponent(id)}`, { method: 'PATCH', body });
export const removeRelease = (id: string) => request<unknown>(`${base}/${encodeURIComponent(id)}`, { method: 'DELETE' });
export const changeReleaseDocuments = (id: string, body: { add?: string[]; remove?: string[] }) =>
  request<{ added: number; removed: number; count: number }>(`${base}/${encodeURIComponent(id)}/documents`, { method: 'POST', body });
export const precheckRelease = (id: string) => request<{ ok: boolean; failures: PrecheckFailure[] }>(`${base}/${encodeURIComponent(id)}/precheck`, { method: 'POST' });
export const publishRelease = (id: string) => request<Release>(`${base}/${encodeURIComponent(id)}/publish`, { method: 'POST' });
export const revertRelease = (id: string) => request<Release>(`${base}/${encodeURIComponent(id)}/revert`, { method: 'POST' });
