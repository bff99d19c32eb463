// Activities (keyManagement/): what users and apps asked for, the audit log.
// Times are milliseconds since the epoch (int8 in PostgreSQL, integer in SQLite). JSON is stored as text.

export interface ActivitiesTable {
  id: string;
  org_id: string;
  user_id: string;
  type: string;
  fingerprint: string;
  status: string;
  intent: string;
  result: string;
  failure: string | null;
  created_at: number;
  updated_at: number;
}
export interface AuditLogTable {
  id: string;
  app_id: string | null;
  user_id: string | null;
  event: string;
  ip: string | null;
  details: string | null;
  created_at: number;
}
