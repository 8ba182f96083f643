export {
  EXPECTED_ERROR_CODES,
  expectedCode,
  type Observation,
  observationsOf,
  toExpectedError,
  withExpectedErrors,
} from "./observations.ts";
