// The module a SwiftData app imports. On Linux it is OpenSwiftData under SwiftData's name, with
// what a file that imports only SwiftData expects to see (Foundation's Date and UUID, and
// Observation's @Observable), so that model code builds with no change at all. On Apple
// platforms the system's SwiftData stands: Package.swift declares this module for Linux only.
@_exported import OpenSwiftData
@_exported import Foundation
#if canImport(Observation)
@_exported import Observation
#endif
