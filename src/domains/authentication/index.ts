import type { Domain } from "../../operations/domain.js";
import { emailAuth } from "./submit/email-auth.js";
import { initOtp } from "./submit/init-otp.js";
import { initOtpAuth } from "./submit/init-otp-auth.js";
import { initUserEmailRecovery } from "./submit/init-user-email-recovery.js";
import { otpAuth } from "./submit/otp-auth.js";
import { otpLogin } from "./submit/otp-login.js";
import { recoverUser } from "./submit/recover-user.js";
import { verifyOtp } from "./submit/verify-otp.js";

export const authenticationDomain: Domain = {
  name: "authentication",
  activities: [initOtp, verifyOtp, otpLogin, initOtpAuth, otpAuth, emailAuth, initUserEmailRecovery, recoverUser],
  queries: [],
};
