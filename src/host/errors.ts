import { BadRequest, Conflict, NoPermission } from '../sdk/index.js'

/** The host's own error classes beyond the SDK catalogue; codes derive from the names. */
export class UsernameTaken extends Conflict {}
export class EmailTaken extends Conflict {}
export class RoleNameTaken extends Conflict {}
export class UnknownRole extends BadRequest {}
export class RoleIsBuiltIn extends NoPermission {}
/** The change would leave the platform without an active administrator. */
export class LastAdmin extends Conflict {}
