# The Go tests the VM suite runs (sourced by guest/suite.sh; scripts/vm/suite.sh builds a
# test binary for each package named here). gotest WHO PACKAGE REGEX: as an unprivileged
# dynamic user, as deploy/kothd.service runs the daemon, and as root, both in a delegated
# cgroup v2. Chosen to keep the whole VM suite within about twenty minutes under emulation
# (TCG) on two cores: everything that touches cgroups, bwrap and the unprivileged path;
# one real cycle per protocol.
#
# The unprivileged user is the shipped unit's, so it runs every list below. Root runs
# what takes another path as root: the uid pool (setpriv instead of a user namespace),
# the cgroups root makes for itself, the memory kills' attribution, the launcher, the
# seccomp supervisor; the rest (the directory pool's bookkeeping, /proc masking, the
# channels, the fork server's equivalence) is the same code either way and runs once.

# runner/sandbox: cgroups (limits, CPU shares per answer, memory caps and whose OOM it
# was, the run's memory, pids), bwrap's view, the channels between sandboxes, the disk
# tmpfs, the launcher. Left out: TestHostile* (minutes of fork and memory bombs, whose
# cgroup parts TestCgroupSandbox, TestLauncherMemoryLimit and the OOM tests cover);
# TestSandboxMasksMovingStatAndMeminfo (bwrap's /proc masks, the same on v1 and v2, which
# TestSandboxMasksGlobalCounters checks here; its 64 MiB pushed through a shell takes
# minutes under emulation).
sandbox_tests='^(TestSandboxHidesInterpretersNotNamed|TestCgroupSandbox|TestCgroupsOff|TestAnswerCPURead|TestBwrapLimitsApplied|TestBwrapProcessLimitIsPerSandbox|TestBwrapView|TestBwrapHidesOptionsAndEnvironmentFromProc|TestSandboxChannelsClosed|TestSandboxDeniesNamespacesAndOtherProcesses|TestSandboxFilterActive|TestSandboxUIDs|TestTwoSandboxesNeverShareAUID|TestSandboxMasksGlobalCounters|TestSandboxNoPty|TestMemoryFaultSeenByTheHost|TestBotDir.*|TestHostileDiskAllowance|TestDirAllowance|TestReadOnlyDir|TestMountPoint|TestLauncherAnswers|TestLauncherTimeoutKillsEverything|TestLauncherMemoryLimit|TestLauncherCPUTimePerDecision|TestLauncherParricide|TestLauncherHostFaults|TestLauncherOwnFailureIsHostFault|TestRunMemoryKillIsNotTheVictims|TestDecisionKilledForTheRunsMemory|TestSocketBuffersBounded|TestProcessOwnsItsSandbox|TestLauncherStarved|TestSandboxDeniesSelfStarving|TestArgvBwrap|TestArgvTimeout|TestBwrapSetupFailureIsHostFault)$'

# As root: the uid pool and root's own sandboxes (see above).
sandbox_root_tests='^(TestSandboxHidesInterpretersNotNamed|TestCgroupSandbox|TestAnswerCPURead|TestBwrapView|TestBwrapProcessLimitIsPerSandbox|TestSandboxDeniesNamespacesAndOtherProcesses|TestSandboxFilterActive|TestSandboxUIDs|TestTwoSandboxesNeverShareAUID|TestMemoryFaultSeenByTheHost|TestLauncherAnswers|TestLauncherMemoryLimit|TestLauncherParricide|TestRunMemoryKillIsNotTheVictims|TestProcessOwnsItsSandbox|TestReadOnlyDir|TestDirAllowance|TestBwrapSetupFailureIsHostFault)$'

# runner/sandbox's trust mechanisms added since: the memory kill's attribution on v2
# (memory.events, memory.peak), the run's memory watcher and its brake, the seccomp user-notification
# supervisor answering sysinfo (the helper joining the cgroup through cgroup.procs before
# bwrap), statfs denied, the Python fork server. A step of their own, so that --only can
# run them alone.
trust_tests='^(TestJudgeKillV2|TestJudgeKillV1|TestMemoryWatcherV2|TestWatcherBrake|TestRunMemoryBrakeHoldsALateWatcher|TestRunMemoryBrakeHoldsParkedColluders|TestWatcherPassesOverMemoryAStopCannotFree|TestOneShotStoppedForItsShare|TestSharedMemoryStaysInItsSandbox|TestSandboxSysinfoConstant|TestSandboxSysinfoThroughLauncher|TestSandboxHelperFitsOneProcess|TestSandboxStatfsDenied|TestForkServerSameAsPlainLaunch|TestForkServerSameEnds|TestForkServerHostileBot|TestForkServerTimeoutSchedstat|TestForkServerWarm.*|TestForkServerServesWarmModules|TestForkServerUserSite|TestForkServerForksAhead|TestNotifyExecHelper)$'
trust_root_tests='^(TestJudgeKillV2|TestMemoryWatcherV2|TestRunMemoryBrakeHoldsALateWatcher|TestRunMemoryBrakeHoldsParkedColluders|TestOneShotStoppedForItsShare|TestSandboxSysinfoConstant|TestSandboxHelperFitsOneProcess|TestSandboxStatfsDenied|TestForkServerHostileBot)$'
# runner/build: builds in a bounded tmpfs (a disk filler stopped, sparse files counted,
# a failure leaving only its log).
build_tests='^(TestBuildDiskFillerStopped|TestBuildFailureLeavesOnlyLog|TestBuildSparseFilesOverAllowance)$'

# Under emulation (TCG, several times slower than the host) a few tests' CPU budgets and
# deadlines are shorter than a Python or bwrap start-up takes (TestBwrapLimitsApplied
# gives `cat` 1.5 s of CPU, which an unprivileged sandbox's set-up exceeds): they test budgets and
# timeouts, which are the same on cgroup v1 and v2 once the CPU accounting is (that,
# TestAnswerCPURead and TestLauncherCPUTimePerDecision check here). Under KVM they run.
slow='^(TestLauncherTimeoutKillsEverything|TestBwrapLimitsApplied|TestAnswerBudgetIsShared|TestTotalBudgetShares|TestSpentBudgetKillsLingeringChildren|TestDirPoolBenches)$'
[ "$(cat /host/accel 2>/dev/null)" = kvm ] && slow='^$'
echo "suite: left out under $(cat /host/accel 2>/dev/null): $slow"

pyclass_tests='^(TestStraysKilledAfterReply|TestStrayChainKilledAfterReply|TestSpentBudgetKillsLingeringChildren|TestStartupsAreCharged|TestTotalMemoryBound|TestLongClassNameTravelsOverThePipe|TestOversizedReplyIsOutputLimit|TestVanishedWorkCopyIsHostFault|TestCallTimerIsCPUTimeWithWallBackstop|TestAnswerBudgetIsShared|TestTotalBudgetShares|TestRunBudget)$'
pyclass_root_tests='^(TestStraysKilledAfterReply|TestStrayChainKilledAfterReply|TestStartupsAreCharged|TestTotalMemoryBound|TestCallTimerIsCPUTimeWithWallBackstop)$'
dirfiles_root_tests='^(TestDirPoolAnswers|TestDirPoolBwrapOwnership|TestDirPoolTimeoutKillsEverything|TestRunScriptFormForkServer)$'

step go-test-sandbox-unprivileged gotest unprivileged runner/sandbox "$sandbox_tests" "$slow"
step go-test-sandbox-root gotest root runner/sandbox "$sandbox_root_tests" "$slow"
step go-test-trust-unprivileged gotest unprivileged runner/sandbox "$trust_tests" "$slow"
step go-test-trust-root gotest root runner/sandbox "$trust_root_tests" "$slow"
step go-test-build-unprivileged gotest unprivileged runner/build "$build_tests" "$slow"
step go-test-build-root gotest root runner/build "$build_tests" "$slow"
# The pyclass harness's trust and CPU shares (shares_test), the dirfiles protocol.
step go-test-pyclass-unprivileged gotest unprivileged runner/protocol/pyclass "$pyclass_tests" "$slow"
step go-test-pyclass-root gotest root runner/protocol/pyclass "$pyclass_root_tests" "$slow"
step go-test-dirfiles-unprivileged gotest unprivileged runner/protocol/dirfiles '.' "$slow"
step go-test-dirfiles-root gotest root runner/protocol/dirfiles "$dirfiles_root_tests" "$slow"
# A real cycle of the pyclass protocol (forty's snapshot) as root; unprivileged, the
# daemon's own forty runs above are that cycle.
step go-test-forty-cycle-root gotest root engine/forty '^TestFortyCycle$'
# Two whole runs against answers that use memory against the others, as the service runs
# them: forty's colluders (two answers that with the leader fill the run's memory, so the
# kernel would kill the leader: the run's memory watcher stops them first; nothing voided,
# the leader first), Bank Heist's self-voider (an answer overrunning its own sandbox's
# memory: its own memory fault, not a host fault voiding the game).
step "go-test-forty-colluders-unprivileged" gotest unprivileged engine/forty '^TestColludersCannotKnockTheLeaderOff$'
step "go-test-bankheist-selfvoid-unprivileged" gotest unprivileged engine/bankheist '^TestBankHeistSelfVoid$'
# A real cycle of the other two protocols, as the service runs them (unprivileged; as root
# they pass too, but take four minutes each under emulation): argv (Bank Heist's snapshot,
# one tournament of 2 games: every answer fetched, built in its language, validated and
# played), dirfiles (Mafia's, one game).
step "go-test-bankheist-cycle-unprivileged" gotest unprivileged engine/bankheist '^TestBankHeistSnapshot$'
# Mafia's needs KVM: under TCG its filler bot's decisions alone outlast the run budget
# (10 min of wall time; as root, a launcher's start outlasted its 30 s), so there the
# dirfiles protocol is covered by runner/protocol/dirfiles's tests above.
if [ "$(cat /host/accel 2>/dev/null)" = kvm ]; then
  step "go-test-mafia-cycle-unprivileged" gotest unprivileged engine/mafia '^TestMafiaSnapshot$'
else
  echo "suite: left out under tcg: engine/mafia TestMafiaSnapshot (run budget under emulation)"
fi
