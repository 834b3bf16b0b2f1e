/** Approvals lapse when consensus is not reached within 24 hours of the first one (the console shows the deadline). */
export const APPROVAL_WINDOW_MS = 24 * 60 * 60 * 1000;
