import type { ActivityDefinition } from "../definition.js";
import { emailAuth } from "./email-auth.js";
import { initOtpAuth } from "./init-otp-auth.js";
import { initOtp } from "./init-otp.js";
import { initUserEmailRecovery } from "./init-user-email-recovery.js";
import { otpAuth } from "./otp-auth.js";
import { otpLogin } from "./otp-login.js";
import { recoverUser } from "./recover-user.js";
import { verifyOtp } from "./verify-otp.js";

export const authenticationActivities: ActivityDefinition[] = [initOtp, verifyOtp, otpLogin, initOtpAuth, otpAuth, emailAuth, initUserEmailRecovery, recoverUser];
