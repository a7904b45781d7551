# The quick start of docs/deploy.md, run by the VM suite in a copy of the repository with
# the kothd binary beside it (bash -ex: any failing line fails the step). Every line of the
# doc's block is here, verbatim and in order (cmd/kothd's TestQuickStartIsWhatTheVMRuns
# checks); lines the doc does not have end in "# vm-only: why".
cp /host/bin/kothd kothd  # vm-only: the binary built on the host, as `go build -o kothd ./cmd/kothd` leaves it
sudo install -m 755 kothd /usr/local/bin/kothd
kothd version
sudo install -d /etc/kothd
sed -e 's|^data_dir: .*|data_dir: /var/lib/kothd/data|' -e 's|^output_dir: .*|output_dir: /srv/kothd|' \
    config.yaml | sudo tee /etc/kothd/config.yaml >/dev/null
python3 /host/keep-forty.py /etc/kothd/config.yaml  # vm-only: host only forty (the doc's "keep the challenges you host"), a short run
sudo install -m 600 /dev/null /etc/kothd/env
kothd status --config /etc/kothd/config.yaml
sudo install -m 644 deploy/kothd.service /etc/systemd/system/kothd.service
sudo install -d /etc/systemd/system/kothd.service.d  # vm-only: the VM has no network: the bundled snapshot stands in for the API
sudo install -m 644 /host/vm-override.conf /etc/systemd/system/kothd.service.d/vm.conf  # vm-only: --snapshot, and shorter watchdog and restart timers
sudo install -d /usr/local/share/kothd && sudo cp -r testdata/snapshot /usr/local/share/kothd/  # vm-only: the snapshot, where the service can read it
sudo systemctl daemon-reload
sudo systemctl enable --now kothd
kothd status --config /etc/kothd/config.yaml
