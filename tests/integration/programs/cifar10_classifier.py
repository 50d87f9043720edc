# Follows PyTorch's blitz "Training a Classifier" (CIFAR10): the LeNet-style Net (conv, max-pool, three Linear
# layers), CrossEntropyLoss, SGD with momentum, per-class accuracy. Synthetic 3x32x32 images in 10 classes.
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
classes = ("plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
protos = torch.randn(10, 3, 32, 32)


def make(n):
    labels = torch.randint(0, 10, (n,))
    images = 0.5 * protos[labels] + torch.randn(n, 3, 32, 32)
    return TensorDataset(images, labels)


trainloader = DataLoader(make(2000), batch_size=16, shuffle=True, num_workers=2)
testloader = DataLoader(make(400), batch_size=16, shuffle=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001 * 5, momentum=0.9)
epoch_losses = []
for epoch in range(3):
    running_loss, total = 0.0, 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        total += loss.item()
        if i % 50 == 49:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 50:.3f}")
            running_loss = 0.0
    epoch_losses.append(total / len(trainloader))
print("Finished Training", epoch_losses)
assert epoch_losses[-1] < epoch_losses[0], epoch_losses

correct = 0
total = 0
correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    for images, labels in testloader:
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
        for label, prediction in zip(labels, predicted):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1
print(f"Accuracy of the network on the test images: {100 * correct // total} %")
for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / max(total_pred[classname], 1)
    print(f"Accuracy for class: {classname:5s} is {accuracy:.1f} %")
assert correct / total > 0.3, correct / total
print("cifar10 classifier: ok")
