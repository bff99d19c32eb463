import { ErrorCode } from "@latchkey/protocol";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import { apiError } from "../../errors";

/** A query naming a user answers only about the caller; another id is "not found", never "forbidden". */
export function assertOwnUser(caller: StampedCaller, userId: string | undefined): void {
  if (userId && userId !== caller.user.id) {
    throw apiError(ErrorCode.USER_NOT_FOUND, `No user ${userId} in this organization`);
  }
}
