import type { ActivityDefinition } from "../definition.js";
import { initOtp } from "./init-otp.js";
import { otpLogin } from "./otp-login.js";
import { verifyOtp } from "./verify-otp.js";

export const authenticationActivities: ActivityDefinition[] = [initOtp, verifyOtp, otpLogin];
