// An audit entry as GET /api/admin/audit and `admin audit` show it (src/http/accountHelpWire.ts holds its schema).

export interface AuditView {
  id: number;
  at: string;
  actor: { id: number | null; name: string | null; role: "teacher" | "admin" | "operator" };
  action: string;
  target: { id: number; name: string | null } | null;
  class_id: number | null;
  address: string | null;
  result: string;
  detail: unknown;
}

export interface AuditRow {
  id: number;
  at: Date;
  actorId: number | null;
  actorName: string | null;
  actorRole: string;
  action: string;
  targetId: number | null;
  targetName: string | null;
  classId: number | null;
  address: string | null;
  result: string;
  detail: unknown;
}

export function auditEntryOf(row: AuditRow): AuditView {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { id: row.actorId, name: row.actorName, role: row.actorRole as "teacher" | "admin" | "operator" },
    action: row.action,
    target: row.targetId === null ? null : { id: row.targetId, name: row.targetName },
    class_id: row.classId,
    address: row.address,
    result: row.result,
    detail: row.detail ?? null,
  };
}
