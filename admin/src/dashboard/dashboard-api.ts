import { request } from '../api/client';
import type { Dashboard } from '../api/generated/api-types';

export type { Dashboard };
export type DashboardDocument = Dashboard['myDrafts']['results'][number];
export type DashboardSchedule = Dashboard['scheduled']['results'][number];

/** The home screen's sections for the signed-in user, in the admin's locale: one request. */
export function loadDashboard(locale: string): Promise<Dashboard> {
  return request<Dashboard>('/@cms/dashboard', { query: { cmsLocale: locale } });
}
