// The platform API's "not found" errors, shared by users and groups.
import { AppError } from "../errors.js";

export const userNotFound = () => new AppError(404, "user_not_found", "User not found");
export const groupNotFound = () => new AppError(404, "group_not_found", "Group not found");
