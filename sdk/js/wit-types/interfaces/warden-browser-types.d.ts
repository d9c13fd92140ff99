/// <reference path="./warden-types-errors.d.ts" />
declare module 'warden:browser/types@0.1.0' {
  export type Error = import('warden:types/errors@0.1.0').Error;
}
